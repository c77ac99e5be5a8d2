"""Integrity defences for candidate passes (SPEC §8): static policy first, runtime guards after."""
