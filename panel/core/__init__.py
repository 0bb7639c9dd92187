"""panel/core"""
