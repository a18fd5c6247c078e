"""Overlays for Kubernetes pods, built on the combinator algebra."""
