"""Projects, folders, diagrams, shared links and prompt history."""
