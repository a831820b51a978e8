"""Train a Murlan agent: ``python train.py ARGS`` is ``murlan train ARGS`` (murlan_cli/train.py).

python train.py                          # the quick preset (a few minutes on 2 cores)
python train.py --config ppo --seed 3    # another preset, or a YAML path; key=value overrides
"""

import sys

from murlan_cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
