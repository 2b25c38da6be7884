"""The package version (its own module, so modules that need it do not import the whole package)."""

__version__ = "0.1.0"
