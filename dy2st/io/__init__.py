"""dy2st.io: saving and loading state dicts (paddle.save / paddle.load)."""
from .serialization import load, save

__all__ = ["save", "load"]

from .dataloader import DataLoader, default_collate_fn, default_convert_fn, get_worker_info  # noqa: E402
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset,  # noqa: E402
                      IterableDataset, Subset, TensorDataset, random_split)
from .distributed_sampler import DistributedBatchSampler  # noqa: E402
from .sampler import (BatchSampler, RandomSampler, Sampler, SequenceSampler,  # noqa: E402
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ += ["DataLoader", "default_collate_fn", "default_convert_fn", "get_worker_info",
            "ChainDataset", "ComposeDataset", "ConcatDataset", "Dataset", "IterableDataset", "Subset",
            "TensorDataset", "random_split", "BatchSampler", "DistributedBatchSampler",
            "RandomSampler", "Sampler", "SequenceSampler", "SubsetRandomSampler", "WeightedRandomSampler"]
