"""Overlays folded into a flytekit ``PodTemplate``."""
