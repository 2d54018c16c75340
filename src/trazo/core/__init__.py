"""Domain rules several API areas share, below the areas and above the outside world (services/) and the models."""
