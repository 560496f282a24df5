"""Synthetic data, as gradsync's models/synthetic_data.h makes it."""


class SyntheticData:
    """Each class a fixed random template in [-1, 1), constant over 4x4 pixel blocks,
    plus Gaussian noise of standard deviation 0.5. A batch of step s is drawn from
    (seed, s, its first sample), so a run's data is the same at every try; unlike
    gradsync's, a sample also depends on its batch (one generator draws the whole
    batch), so N workers do not see what one worker with batch N x B sees."""

    def __init__(self, torch, shape, classes, seed, device):
        self.torch, self.shape, self.classes, self.seed, self.device = torch, shape, classes, seed, device
        c, h, w = shape
        g = torch.Generator().manual_seed(seed)
        self.templates = torch.rand(classes, c, (h + 3) // 4, (w + 3) // 4, generator=g) * 2 - 1

    def batch(self, step, first_sample, batch):
        torch = self.torch
        g = torch.Generator().manual_seed((self.seed * 1000003 + step) * 1000003 + first_sample)
        labels = torch.randint(0, self.classes, (batch,), generator=g)
        c, h, w = self.shape
        images = self.templates[labels].repeat_interleave(4, 2).repeat_interleave(4, 3)[:, :, :h, :w]
        images = images + 0.5 * torch.randn(batch, c, h, w, generator=g)
        return images.contiguous().to(self.device), labels.to(self.device)
