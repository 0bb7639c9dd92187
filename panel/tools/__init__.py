"""panel/tools"""
