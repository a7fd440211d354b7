import collections,sys
def load(f, rps):
    tot=0; c=collections.Counter(); reqs=rps*5
    for l in open(f):
        st,n=l.rstrip().rsplit(' ',1); n=int(n); tot+=n
        fs=st.split(';'); c[fs[-1]]+=n
    return tot/reqs, {k:v/reqs*100 for k,v in c.items()}   # units: 100us samples -> us*... per req
ta,a=load(sys.argv[1], float(sys.argv[2])); tb,b=load(sys.argv[3], float(sys.argv[4]))
print("us/req A %.2f B %.2f"%(ta*100,tb*100))
d=sorted(set(a)|set(b), key=lambda k: -(b.get(k,0)-a.get(k,0)))
for k in d[:45]: print("%7.3f %7.3f %+7.3f %s"%(a.get(k,0)*100/100,b.get(k,0),b.get(k,0)-a.get(k,0),k[:110]))
