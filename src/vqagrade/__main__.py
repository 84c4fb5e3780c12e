"""`python -m vqagrade` runs the command line."""

from .cli import main

main()
