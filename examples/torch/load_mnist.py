#!/usr/bin/env python3
"""Loads MNIST through PyTorch's DataLoader with worker processes and trains
a linear classifier on it; prints one JSON line per step:
{"step": N, "seconds": S, "data_wait": W, "loss": L}.

The real counterpart of dlcbench's `loader` workload, run as a user command:

    dlcbench run --envs host,docker:image=IMAGE,docker:image=IMAGE,shm=1g \
        --data ~/.cache/dlcbench/mnist --workdir examples/torch \
        --metric json:seconds --metric-unit s/step \
        -- python3 {workdir}/load_mnist.py {data} --workers 4

Each worker crops a randomly shifted window of the zero-padded digit and
resizes it to --edge pixels (bilinear), as image pipelines resize to a
network's input; DataLoader hands each batch to this process in shared
memory (/dev/shm), where a container's 64 MiB default is too small for
4 workers x 2 batches ahead at the default edge. "seconds" is the whole step,
waiting for the batch included; "data_wait" is the wait alone.
"""
import argparse
import json
import os
import struct
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset


def read_idx(path, magic):
    with open(path, "rb") as f:
        data = f.read()
    found, count = struct.unpack(">II", data[:8])
    if found != magic:
        sys.exit(f"{path}: not an MNIST idx file (magic {found}, expected {magic})")
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        return torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8).view(count, 1, rows, cols)
    return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()


class AugmentedMnist(Dataset):
    """Digits decoded to floats, shifted over 4 pixels of padding, resized."""

    def __init__(self, folder, edge):
        self.images = read_idx(os.path.join(folder, "train-images-idx3-ubyte"), 2051)
        self.labels = read_idx(os.path.join(folder, "train-labels-idx1-ubyte"), 2049)
        self.edge = edge

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        image = self.images[index].float().div_(255).sub_(0.1307).div_(0.3081)
        padded = F.pad(image, (4, 4, 4, 4))
        top, left = torch.randint(0, 9, (2,)).tolist()
        crop = padded[:, top:top + 28, left:left + 28]
        resized = F.interpolate(crop.unsqueeze(0), size=(self.edge, self.edge), mode="bilinear",
                                align_corners=False)
        return resized.squeeze(0), self.labels[index]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder with MNIST's train-images-idx3-ubyte and train-labels-idx1-ubyte")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--prefetch", type=int, default=2, help="batches each worker loads ahead")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--edge", type=int, default=160)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)  # the workers have the other CPUs
    loader = DataLoader(AugmentedMnist(args.data, args.edge), batch_size=args.batch, shuffle=True,
                        num_workers=args.workers, prefetch_factor=args.prefetch, persistent_workers=True)
    model = nn.Linear(args.edge * args.edge, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    batches = iter(loader)
    for step in range(args.steps):
        began = time.perf_counter()
        try:
            x, y = next(batches)
        except StopIteration:
            batches = iter(loader)
            x, y = next(batches)
        waited = time.perf_counter() - began
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x.flatten(1)), y)
        loss.backward()
        optimizer.step()
        seconds = time.perf_counter() - began
        print(json.dumps({"step": step, "seconds": seconds, "data_wait": waited, "loss": loss.item()}), flush=True)


if __name__ == "__main__":
    main()
