"""The PyTorch peer's network trained in this one process, with no worker
processes: its intra-op (OpenMP) threads are the only threads that work, so
this is the workload where placing them can only help. Imports the model and
data loader of ../shared/bench/torch_hogwild.py (--peer); prints one JSON line
with samples_per_second (timed around the training loop) and test_accuracy."""
import argparse, importlib.util, json, os, time

p = argparse.ArgumentParser()
p.add_argument("--peer", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "bench", "torch_hogwild.py"))
p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
p.add_argument("--train-limit", type=int, default=20000)
p.add_argument("--seed", type=int, default=1)
args = p.parse_args()

spec = importlib.util.spec_from_file_location("peer", args.peer)
peer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peer)
torch, F = peer.torch, peer.F

x, y = peer.load(args.data, "train")
x, y = x[:args.train_limit], y[:args.train_limit]
tx, ty = peer.load(args.data, "t10k")
torch.manual_seed(args.seed)
model = peer.LeNet()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
model.train()
perm = torch.randperm(x.shape[0])
start = time.perf_counter()
for i in range(0, x.shape[0], 64):
    idx = perm[i:i + 64]
    opt.zero_grad()
    F.nll_loss(model(x[idx]), y[idx]).backward()
    opt.step()
seconds = time.perf_counter() - start
model.eval()
with torch.no_grad():
    accuracy = (model(tx).argmax(1) == ty).float().mean().item()
print(json.dumps({"samples_per_second": round(x.shape[0] / seconds, 1),
                  "steady_samples_per_second": round(x.shape[0] / seconds, 1),
                  "test_accuracy": round(accuracy, 4), "threads": torch.get_num_threads()}))
