import torch
from torch import device


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_: torch.nn.parameter.Parameter, L_args_0_: torch.Tensor, L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_: torch.nn.parameter.Parameter, L_self_modules_embeddings_parameters_cls_token_: torch.nn.parameter.Parameter, L_self_modules_embeddings_parameters_position_embeddings_: torch.nn.parameter.Parameter):
        l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_ = L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_
        l_args_0_ = L_args_0_
        l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_ = L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_
        l_self_modules_embeddings_parameters_cls_token_ = L_self_modules_embeddings_parameters_cls_token_
        l_self_modules_embeddings_parameters_position_embeddings_ = L_self_modules_embeddings_parameters_position_embeddings_
        conv2d = torch.conv2d(l_args_0_, l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_, l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_, (8, 8), (0, 0), (1, 1), 1);  l_args_0_ = l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_ = l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_ = None
        flatten = conv2d.flatten(2);  conv2d = None
        transpose = flatten.transpose(1, 2);  flatten = None
        expand = l_self_modules_embeddings_parameters_cls_token_.expand(2, -1, -1);  l_self_modules_embeddings_parameters_cls_token_ = None
        cat = torch.cat((expand, transpose), dim = 1);  expand = transpose = None
        add = cat + l_self_modules_embeddings_parameters_position_embeddings_;  cat = l_self_modules_embeddings_parameters_position_embeddings_ = None
        dropout = torch.nn.functional.dropout(add, 0.0, False, False);  add = None
        arange = torch.arange(2, device = device(type='cpu'));  arange = None
        arange_1 = torch.arange(1, device = device(type='cpu'));  arange_1 = None
        return (dropout,)
