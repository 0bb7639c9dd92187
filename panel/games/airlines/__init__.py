"""panel/games/airlines"""
