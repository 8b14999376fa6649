"""Put two runs of the multilingual recipe side by side in one pipeline, scored by their mean.

    python training/pair_name_models.py training/output/ml/model-best \
        training/output/ml_2/model-best --output training/output/ml/model-pair

The runs differ only in their seed (``train-ml`` and ``train-ml-second``). The assembly is
:func:`spacy_pii.assembly.name_model_pair.pair_name_models`: the second run's encoder, span
finder and ``pii_ner`` get ``_2`` after their names, and ``pii_ner_mean`` writes the group the
merge reads. ``fit_ranker_ml.py`` then fits the span ranker on that group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from spacy_pii.assembly.name_model_pair import pair_name_models
from spacy_pii.errors import ConfigError


def main(
    first: Annotated[Path, typer.Argument(help="the first run's pipeline", exists=True)],
    second: Annotated[Path, typer.Argument(help="the second run's pipeline", exists=True)],
    output: Annotated[Path, typer.Option(help="folder for the paired pipeline")],
) -> None:
    try:
        nlp = pair_name_models(first, second)
    except ConfigError as err:
        raise typer.BadParameter(str(err)) from None
    nlp.to_disk(output)
    print(f"{output}: {', '.join(nlp.pipe_names)}")


if __name__ == "__main__":
    typer.run(main)
