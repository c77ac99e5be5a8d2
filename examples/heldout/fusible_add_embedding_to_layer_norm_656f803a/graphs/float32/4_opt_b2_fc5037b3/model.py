import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_decoder_modules_embed_positions_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, embedding: torch.Tensor, getitem: torch.Tensor):
        l_self_modules_decoder_modules_embed_positions_parameters_weight_ = L_self_modules_decoder_modules_embed_positions_parameters_weight_
        l_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_ = L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_
        l_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_ = L_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_
        add = getitem + 2;  getitem = None
        embedding_1 = torch.nn.functional.embedding(add, l_self_modules_decoder_modules_embed_positions_parameters_weight_, None, None, 2.0, False, False);  add = l_self_modules_decoder_modules_embed_positions_parameters_weight_ = None
        to = embedding_1.to(device(type='cpu'));  embedding_1 = None
        add_1 = embedding + to;  embedding = to = None
        layer_norm = torch.nn.functional.layer_norm(add_1, (128,), l_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_, l_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_, 1e-05);  l_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_weight_ = l_self_modules_decoder_modules_layers_modules_0_modules_self_attn_layer_norm_parameters_bias_ = None
        return (add_1, layer_norm)
