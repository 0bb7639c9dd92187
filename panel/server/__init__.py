"""panel/server"""
