"""Evaluation: gold and predicted documents, exact-span scoring, the release gate,
threshold calibration, the score map and the reports."""
