"""Whole pipelines: building or loading them (:mod:`.build`) and the steps that turn a
trained pipeline into the shipped one (:mod:`.release`)."""
