"""torch_workers.run(work, count, *args, method=None): starts COUNT
torch.multiprocessing workers (the default start method, or `method`:
"spawn" as the seeds' program) each calling work(queue, *args), prints
each line a worker puts on the queue as it comes, then joins them. Shared by
torch_children.py and torch_self_sized.py."""
import torch.multiprocessing as mp


def run(work, count, *args, method=None):
    context = mp.get_context(method)
    queue = context.Queue()
    workers = [context.Process(target=work, args=(queue, *args)) for _ in range(count)]
    for worker in workers:
        worker.start()
    for _ in workers:
        print(queue.get(), flush=True)
    for worker in workers:
        worker.join()
