from input import main

print([[round(float(a), 5), round(float(b), 5)] for a, b in main(5)])
