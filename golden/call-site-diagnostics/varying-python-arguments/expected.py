import tensorflow as tf


@tf.function
def train_step(x, epoch, mode, training=False):
    scale = 1.0 / (1.0 + epoch)
    if mode == "fine-tune":
        scale = scale * 0.1
    return x * scale


@tf.function
def lr_step(x, lr):
    return x * lr


def fit(x, epochs):
    for epoch in range(epochs):
        train_step(x, epoch, "train", training=True)
    train_step(x, 0, "fine-tune")
    train_step(x, 0, "train")
    step = 0
    while step < 3:
        lr_step(x, step)
        step += 1
    lr_step(x, 0.1)
    lr_step(x, 0.01)
