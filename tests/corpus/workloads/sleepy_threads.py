"""sleepy_threads.py THREADS PERIOD_MS WORK SECONDS: a service's idle pool:
THREADS threads that each wake every PERIOD_MS milliseconds, do WORK small
additions, and sleep again, for SECONDS seconds."""
import sys
import threading
import time

threads, period, work, seconds = int(sys.argv[1]), float(sys.argv[2]) / 1000, int(sys.argv[3]), float(sys.argv[4])
end = time.monotonic() + seconds


def serve():
    while time.monotonic() < end:
        sum(range(work))
        time.sleep(period)


pool = [threading.Thread(target=serve) for _ in range(threads)]
for t in pool:
    t.start()
for t in pool:
    t.join()
