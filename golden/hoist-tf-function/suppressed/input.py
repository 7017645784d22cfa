import tensorflow as tf

SCALE = 2.0


def animate(frames):
    @tf.function  # retrace-fix: ignore[RTF006]
    def scaled(x):
        return x * SCALE

    return [scaled(f) for f in frames]


def animate_all(frames):  # retrace-fix: ignore
    @tf.function
    def shifted(x):
        return x + SCALE

    return [shifted(f) for f in frames]


def main(videos):
    for frames in videos:
        animate(frames)
        animate_all(frames)
