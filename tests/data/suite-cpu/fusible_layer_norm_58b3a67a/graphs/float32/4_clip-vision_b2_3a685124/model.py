import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_pre_layrnorm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_pre_layrnorm_parameters_bias_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_bias_: torch.nn.parameter.Parameter, add: torch.Tensor):
        l_self_modules_pre_layrnorm_parameters_weight_ = L_self_modules_pre_layrnorm_parameters_weight_
        l_self_modules_pre_layrnorm_parameters_bias_ = L_self_modules_pre_layrnorm_parameters_bias_
        l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_weight_ = L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_weight_
        l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_bias_ = L_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_bias_
        layer_norm = torch.nn.functional.layer_norm(add, (128,), l_self_modules_pre_layrnorm_parameters_weight_, l_self_modules_pre_layrnorm_parameters_bias_, 1e-05);  add = l_self_modules_pre_layrnorm_parameters_weight_ = l_self_modules_pre_layrnorm_parameters_bias_ = None
        layer_norm_1 = torch.nn.functional.layer_norm(layer_norm, (128,), l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_weight_, l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_bias_, 1e-05);  l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_weight_ = l_self_modules_encoder_modules_layers_modules_0_modules_layer_norm1_parameters_bias_ = None
        return (layer_norm, layer_norm_1)
