import statistics, sys
rows=[l.split() for l in open(sys.argv[1]) if l.startswith('r')]
ports=sorted(set(r[1] for r in rows), key=lambda p:[r[1] for r in rows].index(p))
for p in ports:
    rr=[r for r in rows if r[1]==p]
    print(p, "req/s med %.0f" % statistics.median(float(r[2]) for r in rr), "cpu us/req med %.2f" % statistics.median(float(r[4]) for r in rr), "all cpu", [r[4] for r in rr])
a=[float(r[2]) for r in rows if r[1]==ports[0]]; b=[float(r[2]) for r in rows if r[1]==ports[1]]
print("B/A req/s %.3f, B led %d/%d" % (statistics.median(b)/statistics.median(a), sum(y>x for x,y in zip(a,b)), len(a)))
