from input import main

print([round(v, 5) for v in main()])
