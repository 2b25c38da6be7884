"""Developer tools that are not part of the inference runtime: ``zoo`` (real network graphs with seeded weights)."""
