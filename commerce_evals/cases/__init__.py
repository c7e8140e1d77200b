"""The files people write: the case model and its loaders, reading limits, data paths, input errors."""
