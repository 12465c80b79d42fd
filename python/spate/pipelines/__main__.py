"""``python -m spate.pipelines run --spec spark-pipeline.yml`` (spate run's spec path)."""
import sys

from spate.pipelines.cli import main

sys.exit(main())
