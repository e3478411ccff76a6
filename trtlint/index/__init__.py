"""Discovery (paths -> source files), path selection, and the ProjectIndex rules read."""
