#!/usr/bin/env python3
"""train-cnn.py: the thesis's image route as a baseline (Sigurdson 2018, Sec. 5.3.3): a small
CNN trained on the images of `mapfarm dataset` (train/LABEL/*.png, test/LABEL/*.png), reporting
test accuracy and, from labels.csv, the completion rate of its choices beside the best single
algorithm (chosen on the training split) and pi*, so it compares with `mapfarm select eval`.

    mapfarm dataset --db thesis.db --out dataset/
    python3 tools/train-cnn.py dataset/ [--epochs 30] [--seed 1]

Needs PyTorch and torchvision (pip install torch torchvision); runs on a GPU when one is there
(CUDA), on the CPU otherwise (slowly). Not part of the tests. The thesis used AlexNet; this is a
smaller network of the same kind (three convolution blocks), trained from scratch."""
import argparse
import csv
import os
import random

import torch
import torch.nn as nn
from torchvision import datasets, transforms


def net(classes):
    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                             nn.MaxPool2d(2))
    return nn.Sequential(block(3, 16), block(16, 32), block(32, 64), block(64, 64),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.3),
                         nn.Linear(64, classes))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    random.seed(a.seed)
    torch.manual_seed(a.seed)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    tf = transforms.ToTensor()
    train = datasets.ImageFolder(os.path.join(a.dataset, "train"), tf)
    test = datasets.ImageFolder(os.path.join(a.dataset, "test"), tf)
    if test.classes != train.classes:
        raise SystemExit("train/ and test/ have other labels: %s, %s" % (train.classes, test.classes))
    tl = torch.utils.data.DataLoader(train, batch_size=a.batch, shuffle=True)
    el = torch.utils.data.DataLoader(test, batch_size=a.batch)
    m = net(len(train.classes)).to(dev)
    # Weighted by class: a label that is rarely best still counts.
    counts = torch.bincount(torch.tensor(train.targets), minlength=len(train.classes)).float()
    loss = nn.CrossEntropyLoss(weight=(counts.sum() / counts.clamp(min=1)).to(dev))
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    for epoch in range(a.epochs):
        m.train()
        for x, y in tl:
            opt.zero_grad()
            loss(m(x.to(dev)), y.to(dev)).backward()
            opt.step()
    m.eval()
    chosen = {}
    correct = 0
    with torch.no_grad():
        for i, (x, y) in enumerate(el):
            p = m(x.to(dev)).argmax(1).cpu()
            correct += int((p == y).sum())
            for j, c in enumerate(p.tolist()):
                path = test.samples[i * a.batch + j][0]
                chosen[os.path.splitext(os.path.basename(path))[0]] = train.classes[c]
    print("test accuracy %.1f%% (%d images)" % (100.0 * correct / len(test), len(test)))
    # Completion rates from labels.csv: "LABEL completion_rate" columns; directory names are
    # labels with * written as "star" (farm/dataset.c).
    rows = list(csv.DictReader(open(os.path.join(a.dataset, "labels.csv"))))
    labels = [c[: -len(" completion_rate")] for c in rows[0] if c.endswith(" completion_rate")]
    dirname = {l: "".join("star" if ch == "*" else ch for ch in l) for l in labels}
    rate = lambda r, l: float(r[l + " completion_rate"] or 0)
    tr = [r for r in rows if r["split"] == "train"]
    te = [r for r in rows if r["split"] == "test" and r["key"] in chosen]
    sbs = max(labels, key=lambda l: sum(rate(r, l) for r in tr))
    by_dir = {dirname[l]: l for l in labels}
    sel = sum(rate(r, by_dir.get(chosen[r["key"]], sbs)) for r in te) / len(te)
    vbs = sum(max(rate(r, l) for l in labels) for r in te) / len(te)
    base = sum(rate(r, sbs) for r in te) / len(te)
    gap = 100.0 * (sel - base) / (vbs - base) if vbs > base else float("nan")
    print("completion rate: pi* %.1f, CNN %.1f, best single (%s) %.1f; gap closed %.1f%%"
          % (100 * vbs, 100 * sel, sbs, 100 * base, gap))


if __name__ == "__main__":
    main()
