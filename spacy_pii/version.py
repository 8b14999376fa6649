"""The package's one version string, on the lowest floor so that any module can read it.

The shipped model's meta, ``spacy project run package`` and the wheel follow it
(pyproject.toml reads it from here; tests/test_package_wheel.py checks both).
"""

__version__ = "0.1.0"
