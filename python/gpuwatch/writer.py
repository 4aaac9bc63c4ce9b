"""The Monitor's writer thread: step rows are formatted and written here, off the training
thread (step() only hands over a batch every `flush_every` steps). A loss tensor is converted
here too, so its .item() waits for the GPU on this thread, never on the training loop's."""
import queue
import threading
import warnings


def _as_float(loss):
    if loss is None:
        return None
    try:
        return float(loss.item()) if hasattr(loss, "item") else float(loss)
    except (TypeError, ValueError, RuntimeError):
        return None


class Writer:
    def __init__(self, sinks):
        self._sinks = list(sinks)
        self._queue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="gpuwatch-writer", daemon=True)
        self._thread.start()

    def put(self, pairs):
        """Queues a batch of (row, snapshot) pairs; returns at once."""
        self._queue.put(pairs)

    def drain(self, timeout=30.0):
        """Waits until everything queued so far is written."""
        done = threading.Event()
        self._queue.put(done)
        done.wait(timeout)

    def close(self, timeout=30.0):
        """Writes what is queued, closes the sinks and ends the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self):
        while True:
            item = self._queue.get()
            if item is None:
                break
            if isinstance(item, threading.Event):
                item.set()
                continue
            for row, _ in item:
                if row["loss"] is not None:
                    row["loss"] = _as_float(row["loss"])
            for sink in list(self._sinks):
                try:
                    sink.write(item)
                except Exception as e:  # pylint: disable=broad-except  # a full disk costs this sink's rows, not the training
                    warnings.warn(f"gpuwatch: cannot write {sink.path}: {e}; that sink stops", RuntimeWarning)
                    self._sinks.remove(sink)
        for sink in self._sinks:
            try:
                sink.close()
            except Exception:  # pylint: disable=broad-except
                pass
