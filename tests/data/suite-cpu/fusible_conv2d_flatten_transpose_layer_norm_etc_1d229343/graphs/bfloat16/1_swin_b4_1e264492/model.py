import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_args_0_: torch.Tensor, L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embeddings_modules_norm_parameters_bias_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_bias_: torch.nn.parameter.Parameter):
        l_args_0_ = L_args_0_
        l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_ = L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_
        l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_ = L_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_
        l_self_modules_embeddings_modules_norm_parameters_weight_ = L_self_modules_embeddings_modules_norm_parameters_weight_
        l_self_modules_embeddings_modules_norm_parameters_bias_ = L_self_modules_embeddings_modules_norm_parameters_bias_
        l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_bias_
        conv2d = torch.conv2d(l_args_0_, l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_, l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_, (4, 4), (0, 0), (1, 1), 1);  l_args_0_ = l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_weight_ = l_self_modules_embeddings_modules_patch_embeddings_modules_projection_parameters_bias_ = None
        flatten = conv2d.flatten(2);  conv2d = None
        transpose = flatten.transpose(1, 2);  flatten = None
        layer_norm = torch.nn.functional.layer_norm(transpose, (32,), l_self_modules_embeddings_modules_norm_parameters_weight_, l_self_modules_embeddings_modules_norm_parameters_bias_, 1e-05);  transpose = l_self_modules_embeddings_modules_norm_parameters_weight_ = l_self_modules_embeddings_modules_norm_parameters_bias_ = None
        dropout = torch.nn.functional.dropout(layer_norm, 0.0, False, False);  layer_norm = None
        layer_norm_1 = torch.nn.functional.layer_norm(dropout, (32,), l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_weight_, l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_bias_, 1e-05);  l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_0_modules_blocks_modules_0_modules_layernorm_before_parameters_bias_ = None
        view = layer_norm_1.view(2, 32, 32, 32);  layer_norm_1 = None
        pad = torch._C._nn.pad(view, (0, 0, 0, 0, 0, 0), 'constant', None);  view = None
        view_1 = pad.view(2, 8, 4, 8, 4, 32);  pad = None
        transpose_1 = view_1.transpose(2, 3);  view_1 = None
        contiguous = transpose_1.contiguous();  transpose_1 = None
        view_2 = contiguous.view(-1, 4, 4, 32);  contiguous = None
        view_3 = view_2.view(-1, 16, 32);  view_2 = None
        return (dropout, view_3)
