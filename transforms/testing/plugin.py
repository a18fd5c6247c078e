"""podfold's pytest plugin: the testing kit's fixtures (filled in by the testing kit)."""
