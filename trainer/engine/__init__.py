"""The rules engine: tiles, layouts, lexicons, notation, scoring and move generation.

Pure Python with no web or database import, so tools, tests and the server share it.
"""
