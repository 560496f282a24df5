"""Figures from gradsync result records.

The package reads JSON Lines result files (results/README.md, schema
`gradsync.result` version 1) and draws one kind of figure per module:
efficiency, throughput, busbw, breakdown and simulated. `cli` ties them to the
`scripts/plots.sh` subcommands; `records` reads and checks the input; `style`
holds what every figure shares (colours, titles, axes, saving).
"""
