"""panel/games"""
