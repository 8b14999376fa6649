"""What training needs from the package: gold documents as ``DocBin`` (:mod:`.gold_docs`),
the reader that keeps each document's language (:mod:`.language_corpus`) and the callbacks
that ``spacy train`` configs name (:mod:`.callbacks`)."""
