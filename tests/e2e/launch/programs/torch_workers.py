"""torch_workers.run(work, count, *args): starts COUNT torch.multiprocessing
workers (the default start method) each calling work(queue, *args), prints
each line a worker puts on the queue as it comes, then joins them. Shared by
torch_children.py and torch_self_sized.py."""
import torch.multiprocessing as mp


def run(work, count, *args):
    queue = mp.Queue()
    workers = [mp.Process(target=work, args=(queue, *args)) for _ in range(count)]
    for worker in workers:
        worker.start()
    for _ in workers:
        print(queue.get(), flush=True)
    for worker in workers:
        worker.join()
