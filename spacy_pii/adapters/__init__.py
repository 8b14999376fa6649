"""Code the spaCy components share: hits <-> span groups and token splitting
(:mod:`.span_groups`), data-only serialization (:mod:`.component_data`), and the bounds
on long documents: batches cut by tokens (:mod:`.token_batches`) and listened heads run
over token windows (:mod:`.listened_windows`); and the span categorizer's head with its first
product factored by token (:mod:`.factored_span_head`)."""
