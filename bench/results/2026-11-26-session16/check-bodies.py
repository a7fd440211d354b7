# check.py PORT PATHS N CONC: fetch N random needles with CONC keep-alive connections, compare bodies with nginx's plain copies
import sys, random, threading, http.client, os
port=int(sys.argv[1]); paths=[l.strip() for l in open(sys.argv[2]) if l.strip()]; n=int(sys.argv[3]); conc=int(sys.argv[4])
plain='/tmp/seaweedfs-rdma-bench/plain'
names={}
for f in os.listdir(plain):
    names[f]=f
bad=[0]; ok=[0]; errs=[0]; lock=threading.Lock()
def want(p):
    fid=p.lstrip('/')
    # plain copies are named by the fid with the cookie; paths omit leading zeros? find by prefix
    return open(os.path.join(plain,fid),'rb').read() if os.path.exists(os.path.join(plain,fid)) else None
def run(k):
    c=http.client.HTTPConnection('127.0.0.1',port)
    for i in range(k):
        p=random.choice(paths)
        try:
            c.request('GET',p); r=c.getresponse(); b=r.read()
        except Exception as e:
            with lock: errs[0]+=1
            c=http.client.HTTPConnection('127.0.0.1',port); continue
        w=want(p)
        with lock:
            if r.status!=200 or w is None or w!=b: bad[0]+=1
            else: ok[0]+=1
ts=[threading.Thread(target=run,args=(n//conc,)) for _ in range(conc)]
[t.start() for t in ts]; [t.join() for t in ts]
print('ok',ok[0],'bad',bad[0],'errors',errs[0])
