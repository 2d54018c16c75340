"""Content: who owns a project, folder or diagram, the size limits and types of diagrams, their validation,
and drawing them (rendering, image links and their revalidation)."""
