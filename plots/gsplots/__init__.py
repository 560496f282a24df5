"""Figures from gradsync result records.

The package draws what `gradsync report --format json` computes from JSON
Lines result files (results/README.md): one kind of figure per module,
efficiency, throughput, busbw, breakdown, simulated and projection; and the
crossover map, which reads the one JSON document `gradsync simulate
crossover --map` writes instead. `cli` ties them to
the `scripts/plots.sh` subcommands; `report` runs gradsync and checks its
answer; `style` holds what every figure shares (colours by the strategy
table's order, titles, axes, saving).
"""
