"""What training needs from the package: gold documents as ``DocBin`` (:mod:`.gold_docs`)
and the callbacks that ``spacy train`` configs name (:mod:`.callbacks`)."""
