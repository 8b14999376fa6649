"""Code the spaCy components share: hits <-> span groups and token splitting
(:mod:`.span_groups`), and data-only serialization (:mod:`.component_data`)."""
