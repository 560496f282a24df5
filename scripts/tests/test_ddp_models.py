"""The DDP reference trains gradsync's zoo: its table of models (input shape
and classes) is `gradsync models --json`'s, model for model in the zoo's
order, and, where PyTorch is here, small-cnn's torch module has gradsync's
trainable tensors (name, shape, elements, in order). tests/cli/ddp.sh
compares the torchvision models' tensors too (resnet50, inception3)."""
import json
import subprocess
import unittest

from scriptcase import GRADSYNC, HAVE_TORCH, needs_gradsync

from ddp_reference.models import MODELS


def gradsync_zoo():
    listing = subprocess.run([GRADSYNC, "models", "--json"], capture_output=True, text=True,
                             check=True, timeout=60).stdout
    return {m["name"]: m for m in json.loads(listing)}


@needs_gradsync
class Zoo(unittest.TestCase):
    def test_the_table_is_the_zoo(self):
        zoo = gradsync_zoo()
        self.assertEqual(list(MODELS), list(zoo))
        for name, (shape, classes) in MODELS.items():
            self.assertEqual((list(shape), classes), (zoo[name]["input"], zoo[name]["classes"]), name)

    @unittest.skipUnless(HAVE_TORCH, "no PyTorch in this Python")
    def test_small_cnn_has_gradsync_tensors(self):
        from ddp_reference.models import build_model, parameter_list
        ours = gradsync_zoo()["small-cnn"]
        theirs = parameter_list(build_model("small-cnn"))
        key = lambda tensors: [(t["name"], list(t["shape"]), t["elements"]) for t in tensors]  # noqa: E731
        self.assertEqual(key(theirs), key(ours["gradients"]))
        self.assertEqual(sum(t["elements"] for t in theirs), ours["parameters"])


if __name__ == "__main__":
    unittest.main()
