"""Testing your overlays: assertion helpers, fixtures and hypothesis strategies."""
