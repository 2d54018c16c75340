"""One package and one flask-smorest blueprint per API area."""
