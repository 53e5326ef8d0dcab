import json,sys
sys.path.insert(0,'/work/main')
from bench import matrix
def mk(out, algs, n=2, frac=0.4, period=200, rate=500, iters=40, reps=1, buf=131072, offsets=None, bulk=None, jitter=0):
    jobs=[matrix.job_for_fraction("job%d"%(i+1),frac,period,rate,offset_ms=(offsets[i] if offsets else 0)) for i in range(n)]
    for j in jobs: j["jitter_ms"]=jitter
    cfg=matrix.point("x",jobs,rate_mbit=rate,iterations=iters,repeats=reps,algorithms=algs)
    cfg.update({"backend":"bpf","rtt_ms":0,"buffer_bdp":0,"buffer_bytes":buf,"setup_s":2.5,
                "trainsim":"/work/main/build/userspace/trainsim/mltcp-trainsim"})
    if bulk: cfg["bulk"]=bulk
    json.dump(cfg,open(out,'w'),indent=1)
def A(name,cc,**p): 
    d={"name":name,"cc":cc}
    if p: d["params"]={k:str(v) for k,v in p.items()}
    return d
