"""panel/storage"""
