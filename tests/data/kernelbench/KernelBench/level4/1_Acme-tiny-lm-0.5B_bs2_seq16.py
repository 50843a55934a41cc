# A level-4 shaped reference: a whole pretrained model fetched by name, as KernelBench level 4 does. The file name
# has hyphens and a dot; the weights are downloaded, so it cannot run offline.
import torch
from transformers import AutoConfig, AutoModelForCausalLM


class Model(torch.nn.Module):
    def __init__(self, model_name, config):
        super().__init__()
        self.model = AutoModelForCausalLM.from_pretrained(model_name, config=config)

    def forward(self, x):
        return self.model(x).logits


model_name = "acme/tiny-lm-0.5B"
config = AutoConfig.from_pretrained(model_name)
batch_size = 2
sequence_length = 16


def get_inputs():
    return [torch.randint(0, config.vocab_size, (batch_size, sequence_length))]


def get_init_inputs():
    return [model_name, config]
