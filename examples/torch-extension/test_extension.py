"""Drive leaky_ext the way the seed scenario does: import torch and the extension,
call every function once, do some autograd, and probe CUDA (which fails gracefully
on a machine with no GPU or driver). Run it under Valgrind with ./run-valgrind.sh.

The extension is looked up in build/lib/ next to this script (./build.sh puts it
there), then on the usual sys.path.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "build", "lib"))

import torch  # noqa: E402  (the extension links against the libraries torch loads)
import leaky_ext  # noqa: E402


def say(*args):
    # Flushed at once, so the writes (and the uninitialised bytes uninit_return's value
    # carries into them) happen in call order, not at exit.
    print(*args, flush=True)


def first_party():
    leaky_ext.safe_function()
    leaky_ext.run_leak()
    say("uninit_branch:", leaky_ext.uninit_branch())
    say("uninit_return:", leaky_ext.uninit_return())
    say("overflow:", leaky_ext.overflow())
    leaky_ext.mismatched_delete()
    say("use_after_free:", leaky_ext.use_after_free())
    product = leaky_ext.torch_ops(64)
    say("torch_ops:", tuple(product.shape))
    leaky_ext.tensor_leak(256)


def autograd():
    x = torch.randn(32, 32, requires_grad=True)
    loss = (x @ x.t()).relu().sum()
    loss.backward()
    say("grad norm:", float(x.grad.norm()))


def cuda_probe():
    say("cuda available:", torch.cuda.is_available())
    try:
        torch.zeros(1, device="cuda")
    except (RuntimeError, AssertionError) as e:
        say("cuda probe failed as expected:", str(e).splitlines()[0])
    else:
        say("cuda probe: a GPU answered")


def main():
    say("torch", torch.__version__, "cuda", torch.version.cuda)
    first_party()
    autograd()
    cuda_probe()


if __name__ == "__main__":
    main()
