from input import run

for outputs in run():
    print([o.numpy().tolist() for o in outputs])
