#!/usr/bin/env python3
"""Trains a small convolutional network on MNIST with PyTorch and prints one
JSON line per training step: {"step": N, "seconds": S, "loss": L}.

The example of the README's "Measure your own training":

    dlcbench run --envs host,docker:image=IMAGE --data ~/.cache/dlcbench/mnist \
        --workdir examples/torch --metric json:seconds --metric-unit s/step \
        -- python3 {workdir}/train_mnist.py {data}

It reads the four files of MNIST's own format (idx, uncompressed) from the
folder given, as `dlcbench data fetch mnist` stores them. Each step is a
forward pass, the loss, a backward pass and an SGD step on one batch; the
time printed is of those alone (not of reading the data or printing).
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


def read_idx(path, magic):
    with open(path, "rb") as f:
        data = f.read()
    found, count = struct.unpack(">II", data[:8])
    if found != magic:
        sys.exit(f"{path}: not an MNIST idx file (magic {found}, expected {magic})")
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        images = torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8)
        return images.view(count, 1, rows, cols).float().div_(255).sub_(0.1307).div_(0.3081)
    return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()


class Net(nn.Module):
    """The network of PyTorch's MNIST example, without dropout."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder with MNIST's train-images-idx3-ubyte and train-labels-idx1-ubyte")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()

    # PyTorch starts as many threads as it counts physical cores; like many
    # training scripts this one uses every CPU it was given, unless
    # OMP_NUM_THREADS says otherwise.
    threads = os.environ.get("OMP_NUM_THREADS")
    torch.set_num_threads(int(threads) if threads else len(os.sched_getaffinity(0)))
    torch.manual_seed(0)

    images = read_idx(os.path.join(args.data, "train-images-idx3-ubyte"), 2051)
    labels = read_idx(os.path.join(args.data, "train-labels-idx1-ubyte"), 2049)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for step in range(args.steps):
        start = (step * args.batch) % (len(images) - args.batch)
        x, y = images[start:start + args.batch], labels[start:start + args.batch]
        began = time.perf_counter()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        seconds = time.perf_counter() - began
        print(json.dumps({"step": step + 1, "seconds": seconds, "loss": loss.item(),
                          "threads": torch.get_num_threads()}), flush=True)


if __name__ == "__main__":
    main()
