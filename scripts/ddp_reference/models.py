"""gradsync's zoo as torch modules: every trainable tensor named and shaped as
`gradsync models --json` lists it. torch is imported inside, so that the table of
models is read without it."""
import sys

from .errors import UsageError

# gradsync's zoo: input (C, H, W) and classes (models/*.cc); a token model's
# input is (T, 1, 1) token ids at its default length, its classes its vocabulary.
MODELS = {
    "small-cnn": ((3, 32, 32), 10),
    "resnet50": ((3, 224, 224), 1000),
    "resnet101": ((3, 224, 224), 1000),
    "vgg16": ((3, 224, 224), 1000),
    "inception3": ((3, 299, 299), 1000),
    "alexnet": ((3, 224, 224), 1000),
    "gpt2-124m": ((1024, 1, 1), 50257),
    "gpt2-355m": ((1024, 1, 1), 50257),
    "gpt2-774m": ((1024, 1, 1), 50257),
    "gpt2-1.5b": ((1024, 1, 1), 50257),
    "bert-base": ((128, 1, 1), 30522),
    "bert-large": ((128, 1, 1), 30522),
    "vit-b16": ((3, 224, 224), 1000),
    "tiny-gpt": ((32, 1, 1), 256),
}
# The token models: the reference trains images only (it has no language
# model's data or loss).
TOKEN_MODELS = {"gpt2-124m", "gpt2-355m", "gpt2-774m", "gpt2-1.5b", "bert-base", "bert-large",
                "tiny-gpt"}


def build_model(name):
    """The torch module of gradsync's zoo model `name`, its tensors named as gradsync names them."""
    if name in TOKEN_MODELS:
        raise UsageError(f"--model {name}: the DDP reference trains the image models; {name} is a "
                         "token model")
    import torch.nn as nn
    if name == "small-cnn":
        class SmallCnn(nn.Module):
            # models/small_cnn.cc: conv3x3(16)+ReLU, maxpool2, conv3x3(32)+ReLU, maxpool2, fc(10).
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(3, 16, 3, 1, 1)
                self.conv2 = nn.Conv2d(16, 32, 3, 1, 1)
                self.fc = nn.Linear(32 * 8 * 8, 10)

            def forward(self, x):
                x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
                x = nn.functional.max_pool2d(nn.functional.relu(self.conv2(x)), 2)
                return self.fc(x.flatten(1))
        return SmallCnn()
    try:
        import torchvision.models as tv
    except ImportError as e:
        raise UsageError(f"--model {name} is torchvision's: {sys.executable} has no torchvision ({e}); "
                         "scripts/install-deps.sh peers installs python3-torchvision") from None
    if name in ("resnet50", "resnet101"):
        return getattr(tv, name)(weights=None)
    if name == "inception3":
        return tv.inception_v3(weights=None, aux_logits=False, init_weights=True)
    if name == "vit-b16":
        return tv.vit_b_16(weights=None, dropout=0.0)
    model = getattr(tv, name)(weights=None)  # vgg16, alexnet
    # gradsync treats dropout as the identity (it measures throughput, not accuracy).
    for parent in model.modules():
        for child_name, child in parent.named_children():
            if isinstance(child, nn.Dropout):
                setattr(parent, child_name, nn.Identity())
    return model


def parameter_list(model):
    return [{"name": n, "shape": list(p.shape), "elements": p.numel()}
            for n, p in model.named_parameters() if p.requires_grad]
